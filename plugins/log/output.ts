// Wire types of the log family (kubo core/commands/log.go), Go field order.

/** kubo logLevelOutput: both fields are omitempty */
export interface LogLevelOutput {
  Levels?: Record<string, string>
  Message?: string
}

/** kubo stringList */
export interface LogLsOutput {
  Strings: string[]
}
