#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { configurationReport } from '../lib/configuration-report';
import { CONTEXT_PREFIX, DEFAULT_STACK_NAME } from '../lib/context-config';
import { NotifierStack } from '../lib/notifier-stack';

// No synth at exit: a configuration error below must leave nothing half-built behind its message.
const app = new App({ autoSynth: false });
const stackName: unknown = app.node.tryGetContext(`${CONTEXT_PREFIX}stackName`);
try {
  new NotifierStack(app, typeof stackName === 'string' && stackName ? stackName : DEFAULT_STACK_NAME);
  // cdk-nag 3.x is a validation plugin (not an Aspect): synth fails on any unacknowledged finding.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
} catch (error) {
  // A setting the person running synth can change: its message and the setting, no stack trace. Anything else is a bug.
  const report = configurationReport(error);
  if (report === undefined) throw error;
  process.stderr.write(`${report}\n`);
  process.exitCode = 1;
}
