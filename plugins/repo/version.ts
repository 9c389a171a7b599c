// ipfs repo version (kubo core/commands/repo.go repoVersionCmd).
import { defineCommand } from '../../registry/define.js'
import { REPO_VERSION } from '../../core/version.js'
import type { RepoVersion } from './output.js'

export const repoVersion = defineCommand({
  path: ['repo', 'version'],
  description: 'Show the repo version.',
  help: "'ipfs repo version' returns the current repo version.",
  options: {
    quiet: { type: 'bool', aliases: ['q'], description: 'Write minimal output.' }
  },
  output: 'single',
  run: (): RepoVersion => ({ Version: String(REPO_VERSION) }),
  text: (out, { options }) => options.quiet === true ? `fs-repo@${out.Version}\n` : `ipfs repo version fs-repo@${out.Version}\n`
})
