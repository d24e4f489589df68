export {
  HealthMonitor,
  type HealthMonitorOptions,
  type HealthStatus,
  isAuthError,
  isProviderHealth,
  type ProbeResult,
  type ProviderHealth,
  worseHealth,
} from './health';
