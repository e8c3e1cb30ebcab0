/**
 * The one result shape of every parser and check in src/protocol.
 *
 * Bad input never throws past a protocol API: it comes back as `{ ok: false, error }`
 * with an error that names the field it is about, so an edge can map it once to
 * the protocol's own refusal shape (SchCP §9.2, OSBP Problem, JSON-RPC error).
 */
export type Ok<T> = { readonly ok: true; readonly value: T };
export type Err<E> = { readonly ok: false; readonly error: E };
export type Result<T, E = FieldError> = Ok<T> | Err<E>;

export const ok = <T>(value: T): Ok<T> => ({ ok: true, value });
export const err = <E>(error: E): Err<E> => ({ ok: false, error });

/**
 * A problem with one field of some input. `field` is a JSON-pointer-like path
 * ("/constraints/window/not_before", "" for the whole value, or a header name).
 */
export interface FieldError<C extends string = string> {
  readonly code: C;
  readonly field: string;
  readonly message: string;
}

export const fieldError = <C extends string>(code: C, field: string, message: string): FieldError<C> => ({
  code,
  field,
  message,
});

/** Appends a member or index to a JSON pointer, escaping per RFC 6901. */
export function childPointer(parent: string, key: string | number): string {
  const token = String(key).replace(/~/g, "~0").replace(/\//g, "~1");
  return `${parent}/${token}`;
}
