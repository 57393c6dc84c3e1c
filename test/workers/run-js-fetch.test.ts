import { inject } from 'vitest'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { describeRunJsFetch } from '../run-js/fetch-suite.js'

// workerd's own fetch, to loopback servers started by the project's global setup (test/run-js/fetch-servers.ts).
describeRunJsFetch('workerd', { origins: () => inject('fetchOrigins'), engine: workerdEngine(), redirects: 'inspected' })
