// MFS errors with the texts boxo's mfs and Go's os package give them.
import { RpcError } from '../errors.js'

export class MfsError extends RpcError {}

/** os.ErrNotExist */
export class NotExistError extends MfsError {
  constructor () { super('file does not exist') }
}

/** os.ErrExist */
export class ExistError extends MfsError {
  constructor () { super('file already exists') }
}

/** mfs.ErrDirExists */
export const ERR_DIR_EXISTS = 'directory already has entry by that name'
export class DirExistsError extends MfsError {
  constructor () { super(ERR_DIR_EXISTS) }
}

export const isNotExist = (err: unknown): boolean => err instanceof NotExistError
export const isExist = (err: unknown): boolean => err instanceof ExistError
