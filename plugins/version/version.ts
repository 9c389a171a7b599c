// ipfs version (kubo core/commands/version.go): the JSON is fixed, the options shape the text.
import { defineCommand } from '../../registry/define.js'
import type { VersionOutput } from './output.js'
import { versionInfo, versionText } from './system.js'

export const versionVersion = defineCommand({
  path: ['version'],
  description: 'Show IPFS version information.',
  help: 'Returns the current version of IPFS and exits.',
  noRepo: true,
  options: {
    number: { type: 'bool', aliases: ['n'], description: 'Only show the version number.' },
    commit: { type: 'bool', description: 'Show the commit hash.' },
    repo: { type: 'bool', description: 'Show repo version.' },
    all: { type: 'bool', description: 'Show all version information' }
  },
  output: 'single',
  run: (): VersionOutput => versionInfo(),
  text: (v, { options }) => {
    // Kubo's wording, this node's facts (the same lines as the daemon's banner)
    if (options.all === true) return versionText(v)
    const commit = options.commit === true && v.Commit !== '' ? `-${v.Commit}` : ''
    if (options.repo === true) return `${v.Repo}\n`
    if (options.number === true) return `${v.Version}${commit}\n`
    return `ipfs version ${v.Version}${commit}\n`
  }
})
