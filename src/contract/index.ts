/**
 * The ground floor: the store contract, errors, paths and the run layout. The workspace, the
 * stores, run_js and the agent all import their shared vocabulary from here.
 */
export * from './errors.js'
export * from './paths.js'
export * from './store.js'
export * from './history.js'
export * from './layout.js'
