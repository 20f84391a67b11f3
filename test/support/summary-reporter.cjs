"use strict";
// The spec reporter, plus one closing line "N passed, N failed" that CI reads to count the tests.
const Spec = require("mocha/lib/reporters/spec");

class SummaryReporter extends Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once("end", () => {
      const { passes, failures, pending } = this.stats;
      process.stdout.write(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ""}\n`);
    });
  }
}

module.exports = SummaryReporter;
