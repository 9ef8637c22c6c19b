// The per-call check of `authorization: Bearer <INTERNAL_TOKEN>` on internal gRPC listeners, in constant time
// without hashing.
//
// Why no digest: the earlier check hashed the presented header (SHA-256) so `timingSafeEqual` could compare
// two equal-length buffers; that cost a native hash, a Buffer write and two more native calls on every call
// of every internal method. The loop below compares the presented header with the expected one directly:
// it always runs over the whole expected header (its length is fixed, so the running time does not depend
// on the presented value or on how much of it matches), it has no branch and no memory access that depends
// on the secret, and it folds the length difference into the same accumulator. The one data-dependent path
// is `charCodeAt` past the end of a shorter presented header (NaN, read as 0): it depends only on the
// caller's own input.
//
// Why no cache of the last accepted header: grpc-js parses a fresh string for every call, so an identity
// check never hits, and `===` against a remembered good header returns at the first differing character,
// which is exactly the timing oracle this check exists to avoid.

/** A check of one presented header value; true when no token is configured. */
export type BearerCheck = (presented: unknown) => boolean;

export function bearerCheck(internalToken: string | undefined): BearerCheck {
  if (internalToken === undefined) return () => true;
  const expected = `Bearer ${internalToken}`;
  const length = expected.length;
  return (presented) => {
    if (typeof presented !== "string") return false;
    let diff = presented.length ^ length;
    for (let i = 0; i < length; i++) diff |= (presented.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
    return diff === 0;
  };
}
