import { afterAll } from 'vitest'
import { describeFetchApproval } from '../agent/fetch-approval-suite.js'
import { describeRunJsFetch } from '../run-js/fetch-suite.js'
import { describeRunJsFetchHostile } from '../hostile/run-js-fetch.js'
import { startFetchServers } from '../run-js/fetch-servers.js'

// The loopback servers live in this process (in workerd and Chromium a global setup starts them).
const servers = startFetchServers()
afterAll(async () => (await servers).close())
const origins = async () => (await servers).origins

describeRunJsFetch('node', { origins, redirects: 'inspected' })
describeRunJsFetchHostile('node', { origins, redirects: 'inspected' })
describeFetchApproval('node', { origins, redirects: 'inspected' })
