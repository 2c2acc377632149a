// Public surface of the Events side of @image-refresh/k8s-adapter.
export { createEventsPort, type EventsPortOptions, eventName, REPORTING_CONTROLLER } from './create-events-port.js';
