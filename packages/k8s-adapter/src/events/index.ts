// Public surface of the Events side of @image-refresh/k8s-adapter.
export { createEventsPort, type EventsPortOptions, REPORTING_CONTROLLER } from './create-events-port.js';
export { eventName, noteShape } from './event-name.js';
