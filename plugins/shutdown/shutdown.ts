// ipfs shutdown (kubo core/commands/shutdown.go): stop the daemon; answers 200 with an empty body.
import { InvalidArgumentError } from '../../core/errors.js'
import { defineCommand } from '../../registry/define.js'

export const shutdownShutdown = defineCommand({
  path: ['shutdown'],
  description: 'Shut down the IPFS daemon.',
  output: 'ndjson',
  run: ({ deps: { node }, log }): undefined => {
    if (!node.daemon) throw new InvalidArgumentError('daemon not running')
    try {
      node.shutdown()
    } catch (err) {
      // Kubo only logs errors while closing
      log.error(`error while shutting down ipfs daemon: ${(err as Error).message}`)
    }
  }
})
