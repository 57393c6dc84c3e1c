import { expect, it } from 'vitest'
import { ApiError } from '../../demo/src/api/client.js'

// The demo's error sentences (issue 28): a server message has no final stop, and the demo writes its
// own hint after it; the two must read as two sentences, not one glued run.
it('ends a server message as a sentence before the demo hint that follows it', () => {
  const tooLarge = new ApiError(413, 'too-large', 'uploads are limited to 20971520 bytes on this route; this one has 20971521')
  expect(tooLarge.describe()).toBe(
    'uploads are limited to 20971520 bytes on this route; this one has 20971521. Nothing was written: upload fewer or smaller files. (413 too-large)',
  )
  const missing = new ApiError(404, 'not-found', 'There is no session "s1"')
  expect(missing.describe()).toBe('There is no session "s1". It does not exist (or belongs to someone else). (404 not-found)')
  // A message that ends as a sentence already keeps its own stop; one without a hint is left as it came.
  expect(new ApiError(0, 'network', 'Could not reach the host: failed.').describe()).toBe(
    'Could not reach the host: failed. Check the base URL and that the host is running. (network network)',
  )
  expect(new ApiError(409, 'conflict', 'Session s1 exists already').describe()).toBe('Session s1 exists already. (409 conflict)')
})
