// Error classes carry go-ipfs-cmds' error codes; names are set from the class, never by hand.

export enum ErrorCode { Normal = 0, Client = 1, Implementation = 2, RateLimited = 3, Forbidden = 4 }

export class RpcError extends Error {
  readonly code: ErrorCode = ErrorCode.Normal
  constructor (message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = new.target.name
  }
}

/** Bad input from the client: HTTP 400, Code 1. */
export class InvalidArgumentError extends RpcError { override readonly code: ErrorCode = ErrorCode.Client }
/** A request that could not be parsed (bad option value, missing argument): plain-text 400. */
export class RequestParseError extends RpcError { override readonly code: ErrorCode = ErrorCode.Client }
export class RemovedCommandError extends RpcError {}
export class NotEnabledError extends RpcError {}
export class NotOnlineError extends RpcError {
  constructor (message = "this command must be run in online mode. Try running 'ipfs daemon' first", options?: ErrorOptions) {
    super(message, options)
  }
}
export class NotFoundError extends RpcError {}
export class MissingDependencyError extends RpcError { override readonly code: ErrorCode = ErrorCode.Implementation }
export class RepoLockedError extends RpcError {}
export class NotInitializedError extends RpcError {
  constructor (message = "ipfs not initialized, please run 'ipfs init'", options?: ErrorOptions) {
    super(message, options)
  }
}

/** The go-ipfs-cmds code for any thrown value. */
export function errorCode (err: unknown): ErrorCode {
  const code = (err as { code?: unknown })?.code
  return typeof code === 'number' && code in ErrorCode ? code : ErrorCode.Normal
}

export function errorMessage (err: unknown): string {
  if (err instanceof Error) return err.message
  return String(err)
}
