import { describeRunJsLeaks } from '../run-js/leaks.js'

describeRunJsLeaks('node')
