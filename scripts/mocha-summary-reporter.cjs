'use strict';
// Mocha reporter: the built-in "spec" output, followed by one machine-friendly
// summary line on its own, e.g. "42 passed, 0 failed" (", 3 skipped" when any
// tests are pending). Referenced from .mocharc.json.
const Mocha = require('mocha');

const { Spec } = Mocha.reporters;
const { EVENT_RUN_END } = Mocha.Runner.constants;

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    // Registered after Spec's own listener, so it prints after Spec's epilogue.
    runner.once(EVENT_RUN_END, () => {
      const stats = this.stats || runner.stats || {};
      const passed = stats.passes || 0;
      const failed = stats.failures || 0;
      const skipped = stats.pending || 0;
      let line = `${passed} passed, ${failed} failed`;
      if (skipped > 0) line += `, ${skipped} skipped`;
      process.stdout.write(`\n${line}\n`);
    });
  }
}

module.exports = SummaryReporter;
