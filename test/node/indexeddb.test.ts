import { expect, it } from 'vitest'
import { indexedDbStore, isVfsError } from '../../src/index.js'

// Node has no IndexedDB: constructing the store must say so at once, not fail on the first write.
it('refuses to construct where IndexedDB is unavailable, with a typed error saying what to use instead', () => {
  expect(typeof indexedDB).toBe('undefined')
  let error: unknown
  try {
    indexedDbStore({ dbName: 'x' })
  } catch (e) {
    error = e
  }
  expect(isVfsError(error, 'ESTORE'), String(error)).toBe(true)
  expect(String(error)).toMatch(/IndexedDB is not available.*memoryStore\(\)/)
})
