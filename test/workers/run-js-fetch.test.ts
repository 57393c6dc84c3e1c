import { inject } from 'vitest'
import { workerdEngine } from '../../src/runtimes/workerd/index.js'
import { describeFetchApproval } from '../agent/fetch-approval-suite.js'
import { describeRunJsFetch } from '../run-js/fetch-suite.js'
import { describeRunJsFetchHostile } from '../hostile/run-js-fetch.js'

// workerd's own fetch, to loopback servers started by the project's global setup (test/run-js/fetch-servers.ts).
const origins = () => inject('fetchOrigins')
describeRunJsFetch('workerd', { origins, engine: workerdEngine(), redirects: 'inspected' })
describeRunJsFetchHostile('workerd', { origins, engine: workerdEngine(), redirects: 'inspected' })
describeFetchApproval('workerd', { origins, engine: workerdEngine(), redirects: 'inspected' })
