// Moved to core/util/tabwriter.ts (one copy for every plugin); kept as a re-export.
export { tabwrite, type TabwriterInit } from '../../core/util/tabwriter.js'
