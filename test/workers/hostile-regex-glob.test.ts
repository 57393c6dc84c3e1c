import { memoryStore } from '../../src/index.js'
import { describeHostileRegexGlob } from '../hostile/regex-glob.js'

describeHostileRegexGlob('workerd', () => memoryStore())
