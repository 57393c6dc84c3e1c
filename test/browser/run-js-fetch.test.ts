import { inject } from 'vitest'
import { describeFetchApproval } from '../agent/fetch-approval-suite.js'
import { describeRunJsFetch } from '../run-js/fetch-suite.js'
import { describeRunJsFetchHostile } from '../hostile/run-js-fetch.js'

// Chromium's fetch (CORS), to loopback servers started by the project's global setup (test/run-js/fetch-servers.ts).
// A page cannot read redirects (`redirect: 'manual'` answers an opaque one): every redirect is refused.
const origins = () => inject('fetchOrigins')
describeRunJsFetch('chromium', { origins, redirects: 'opaque' })
describeRunJsFetchHostile('chromium', { origins, redirects: 'opaque' })
describeFetchApproval('chromium', { origins, redirects: 'opaque' })
