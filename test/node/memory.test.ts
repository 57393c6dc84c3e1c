import { memoryStore } from '../../src/index.js'
import { describeStoreConformance } from '../conformance/store-suite.js'
import { describeVfsDurability } from '../conformance/vfs-suite.js'

describeStoreConformance('memory (node)', async () => ({ store: memoryStore() }))
describeVfsDurability('memory (node)', async () => ({ store: memoryStore() }))
