import { memoryStore } from '../../src/index.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'
import { describeContentHash } from '../conformance/hash-suite.js'
import { describeHistory } from '../conformance/history-suite.js'

describeStoreConformance('memory (node)', async () => ({ store: memoryStore() }))
describeVfsDurability('memory (node)', async () => ({ store: memoryStore() }))
describeHistory('memory (node)', async () => ({ store: memoryStore() }))
describeContentHash('node')
