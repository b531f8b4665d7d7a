import { BadUserInputError } from '../errors';

/** A rejected dataset: `path` is the JSON path of the first error (`$.clients[0].password`). */
export class DatasetError extends Error {
  override name = 'DatasetError';
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** Runs a service call or check, turning its field errors into a DatasetError under `base`. */
export async function atPath<T>(base: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof BadUserInputError) {
      const field = err.fields[0]?.field ?? '';
      throw new DatasetError(
        field.startsWith('[') || !field ? `${base}${field}` : `${base}.${field}`,
        err.fields[0]?.description ?? err.message,
      );
    }
    throw err;
  }
}

/** The refusal of a row naming a tenant that is neither in the file nor in the database. */
export function unknownTenant(path: string, name: string): DatasetError {
  return new DatasetError(path, `tenant "${name}" is neither in the file nor in the database`);
}
