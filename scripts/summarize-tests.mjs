#!/usr/bin/env node
// Reads vitest JSON reports and prints the one closing line CI reads: "N passed, N failed".
// A report that is missing or unreadable counts as one failure: a crashed runner must not pass.
import { readFileSync } from 'node:fs'

let passed = 0
let failed = 0
let skipped = 0
for (const file of process.argv.slice(2)) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'))
    passed += report.numPassedTests
    failed += report.numFailedTests
    skipped += report.numPendingTests + (report.numTodoTests ?? 0)
    // A file that failed to load, or whose hook failed (its tests then show as skipped), has no
    // failed test of its own but is a failure all the same.
    const fileFailures = report.testResults.filter(
      r => r.status === 'failed' && !r.assertionResults.some(a => a.status === 'failed'),
    ).length
    failed += fileFailures
    // A run that failed outside any test and file (a project's globalSetup threw, an unhandled
    // error) has nothing failed to count but `success: false`: one failure.
    if (report.success === false && report.numFailedTests === 0 && fileFailures === 0) failed++
  } catch (error) {
    console.error(`no usable test report in ${file}: ${error.message}`)
    failed++
  }
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(failed > 0 ? 1 : 0)
