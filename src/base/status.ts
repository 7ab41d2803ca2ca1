/** HTTP status classes, as the checks and the client read them. */

/** Any 2xx: the service took the request (for a withdrawal: it may move money). */
export function isSuccess(status: number): boolean {
  return status >= 200 && status < 300;
}

/** Any 4xx: the service refused the request as the client's fault. */
export function isClientError(status: number): boolean {
  return status >= 400 && status < 500;
}

/** Any 4xx or 5xx: an error, whose body §7 does not show. */
export function isError(status: number): boolean {
  return status >= 400;
}

export function isServerError(status: number): boolean {
  return status >= 500;
}
