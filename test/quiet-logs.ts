import { Logger } from '@nestjs/common';

// Quiet tests: Nest's default logger prints every level, so specs that build services directly would
// flood the output with DEBUG lines. Errors only, unless MUNINN_TEST_LOGS names the levels wanted
// (e.g. MUNINN_TEST_LOGS=log,warn,error,debug).
const wanted = process.env.MUNINN_TEST_LOGS?.split(',').map((l) => l.trim()) ?? ['error', 'fatal'];
Logger.overrideLogger(wanted as Parameters<typeof Logger.overrideLogger>[0]);
