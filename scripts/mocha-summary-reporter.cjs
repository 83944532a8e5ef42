'use strict';
// Mocha's spec output plus one closing line, "N passed, N failed[, N skipped]",
// which CI reads to count the tests.
const Spec = require('mocha/lib/reporters/spec');
const { EVENT_RUN_END } = require('mocha/lib/runner').constants;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once(EVENT_RUN_END, () => {
      const { passes, failures, pending } = runner.stats;
      const skipped = pending > 0 ? `, ${pending} skipped` : '';
      process.stdout.write(`\n${passes} passed, ${failures} failed${skipped}\n`);
    });
  }
}

module.exports = SummaryReporter;
