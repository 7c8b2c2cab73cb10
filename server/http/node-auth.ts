import { ApiError } from "./api.ts";

/** 401 for a missing or wrong node/admin token, with the scheme the caller should use. */
export function nodeUnauthorized(message = "Send a valid node token as Authorization: Bearer <token>.") {
  return new ApiError(401, "Unauthorized", message, { "WWW-Authenticate": 'Bearer realm="naijalink-nodes"' });
}
