import { randomUUID } from 'node:crypto';

/** An incoming `x-request-id` that is echoed: 1-128 characters of `A-Z a-z 0-9 . _ : -`. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id (CONTRACT §1: "Every response carries `x-request-id`, echoing a valid
 * incoming one, else generated"): `incoming` (the request's `x-request-id`, '' when absent) when
 * it is 1-128 characters of `A-Z a-z 0-9 . _ : -`, else a new random UUID.
 */
export function requestIdOf(incoming: string): string {
  return REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
