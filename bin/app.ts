#!/usr/bin/env node
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CONTEXT_PREFIX, DEFAULT_STACK_NAME } from '../lib/context-config';
import { NotifierStack } from '../lib/notifier-stack';

const app = new App();
const stackName: unknown = app.node.tryGetContext(`${CONTEXT_PREFIX}stackName`);
new NotifierStack(app, typeof stackName === 'string' && stackName ? stackName : DEFAULT_STACK_NAME);
// cdk-nag 3.x is a validation plugin (not an Aspect): synth fails on any unacknowledged finding.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();
