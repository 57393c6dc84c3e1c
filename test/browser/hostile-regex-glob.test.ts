import { memoryStore } from '../../src/index.js'
import { describeHostileRegexGlob } from '../hostile/regex-glob.js'

describeHostileRegexGlob('browser', () => memoryStore())
