// Text output of key commands (Go's tabwriter and Kubo's EscNonPrint).
import type { KeyOutput, KeyOutputList } from './output.js'
import { tabwrite } from '../../core/util/tabwriter.js'
import { escNonPrint } from '../../core/go/strings.js'

/** Kubo's keyOutputListEncoders: names, or `<id> <name>` columns with -l. */
export function keyListText (list: KeyOutputList, withId: boolean): string {
  const keys: KeyOutput[] = list.Keys ?? []
  const raw = keys.map(k => withId ? `${k.Id}\t${escNonPrint(k.Name)}\t\n` : `${escNonPrint(k.Name)}\n`).join('')
  return tabwrite(raw, { minwidth: 1, padding: 1 })
}

/** Go's fmt %s of a bool (a verb mismatch): %!s(bool=true). */
export const goBool = (b: boolean): string => `%!s(bool=${String(b)})`
