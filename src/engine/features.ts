/** Every feature of the engine, in registration order (later features may use earlier ones' services). */
import type { Feature } from './feature.js';
import { healthFeature } from './api/health.js';
import { projectsFeature } from './api/projects.js';
import { consoleSessionFeature } from './api/console-session.js';
import { profilesFeature } from './api/profiles.js';

export const features: Feature[] = [healthFeature, projectsFeature, consoleSessionFeature, profilesFeature];
