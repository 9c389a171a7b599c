// Assertions several specs share.
import { expect } from 'chai'

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection (p: Promise<unknown>): Promise<Error> {
  try { await p } catch (err) { return err as Error }
  throw new Error('expected a rejection')
}

/** The promise must reject with exactly this message (or one matching the pattern); returns the error. */
export async function rejects (promise: Promise<unknown>, message: string | RegExp): Promise<Error> {
  const error = await rejection(promise)
  expect(error, 'expected a rejection').to.be.instanceOf(Error)
  if (typeof message === 'string') expect(error.message).to.equal(message)
  else expect(error.message).to.match(message)
  return error
}
