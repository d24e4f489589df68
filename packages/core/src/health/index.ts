export {
  HealthMonitor,
  type HealthMonitorOptions,
  type HealthStatus,
  isProviderHealth,
  type ProbeResult,
  type ProviderHealth,
  worseHealth,
} from './health';
