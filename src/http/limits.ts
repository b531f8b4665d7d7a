/**
 * Limits of the transport layer, shared by REST, GraphQL over HTTP and GraphQL over WebSocket
 * (the GraphQL-specific cost, page and deadline limits are in src/graphql/limits.ts).
 */

/** Largest accepted request body or WebSocket message (docs/contract.md §1): 1 MiB. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Queries deeper than this are rejected at validation (docs/contract.md §7 limits). */
export const MAX_QUERY_DEPTH = 12;
