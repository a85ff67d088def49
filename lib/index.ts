export * from './notifier';
export * from './notifier-alarms';
export * from './notifier-dashboard';
export * from './notifier-function';
export * from './notifier-stack';
export * from './context-config';
export { SERVICE, type ServiceName } from './metrics';
