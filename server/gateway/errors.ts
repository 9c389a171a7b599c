// Gateway errors carry the HTTP status they map to (boxo gateway/errors.go webError).
import type { CID } from 'multiformats/cid'

export class GatewayError extends Error {
  readonly status: number
  constructor (status: number, message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
    this.status = status
  }
}

/** A block that is not in the local store (and could not be fetched): 404. */
export class BlockNotFoundError extends GatewayError {
  readonly cid: CID
  constructor (cid: CID, options?: ErrorOptions) {
    super(404, `block was not found locally (offline): ipld: could not find ${cid.toString()}`, options)
    this.cid = cid
  }
}

/** A path segment that names no link: 404 (boxo resolver.ErrNoLink). */
export class NoLinkError extends GatewayError {
  constructor (name: string, under: CID | string, options?: ErrorOptions) {
    super(404, `no link named ${JSON.stringify(name)} under ${under.toString()}`, options)
  }

  /** the same error with the resolver's own text */
  withMessage (message: string): this {
    this.message = message
    return this
  }
}

/** Fetching took longer than Gateway.RetrievalTimeout: 504. */
export class RetrievalTimeoutError extends GatewayError {
  constructor (message = 'Unable to retrieve content within timeout period', options?: ErrorOptions) {
    super(504, message, options)
  }
}

/** The status for any error: its own, 404 for "not found" errors of the IPLD libraries, else `fallback`. */
export function statusOf (err: unknown, fallback = 500): number {
  if (err instanceof GatewayError) return err.status
  const name = (err as { name?: string })?.name
  if (name === 'TimeoutError') return 504
  if (name === 'NotFoundError' || name === 'BadPathError') return 404
  return fallback
}

/** True for errors that mean "this path does not exist" (the ones _redirects may rescue). */
export function isNotFound (err: unknown): boolean {
  return statusOf(err, 0) === 404
}

export function messageOf (err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
