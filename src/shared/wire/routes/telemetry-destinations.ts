/** Routes of OTLP telemetry destinations. */
import { defineRoutes } from './route-spec.js';
import {
  OtlpDestinationCreateSchema,
  OtlpDestinationIdParamSchema,
  OtlpDestinationListQuerySchema,
  OtlpDestinationListSchema,
  OtlpDestinationPatchSchema,
  OtlpDestinationSchema,
} from '../telemetry-destinations.js';

export const telemetryDestinationsRoutes = defineRoutes({
  'POST /telemetry/destinations': {
    schema: {
      summary: 'Create a telemetry destination',
      tags: ['telemetry destinations'],
      body: OtlpDestinationCreateSchema,
      response: { 200: OtlpDestinationSchema },
    },
    facts: { audit: 'telemetry' },
  },
  'GET /telemetry/destinations': {
    schema: {
      summary: 'List telemetry destinations',
      tags: ['telemetry destinations'],
      querystring: OtlpDestinationListQuerySchema,
      response: { 200: OtlpDestinationListSchema },
    },
    facts: { audit: 'telemetry' },
  },
  'GET /telemetry/destinations/:id': {
    schema: {
      summary: 'Get a telemetry destination',
      tags: ['telemetry destinations'],
      params: OtlpDestinationIdParamSchema,
      response: { 200: OtlpDestinationSchema },
    },
    facts: { reach: { table: 'telemetry_destinations', param: 'id' }, audit: 'telemetry' },
  },
  'PATCH /telemetry/destinations/:id': {
    schema: {
      summary: 'Update a telemetry destination',
      tags: ['telemetry destinations'],
      params: OtlpDestinationIdParamSchema,
      body: OtlpDestinationPatchSchema,
      response: { 200: OtlpDestinationSchema },
    },
    facts: { reach: { table: 'telemetry_destinations', param: 'id' }, audit: 'telemetry' },
  },
  'DELETE /telemetry/destinations/:id': {
    schema: { summary: 'Delete a telemetry destination', tags: ['telemetry destinations'], params: OtlpDestinationIdParamSchema },
    facts: { reach: { table: 'telemetry_destinations', param: 'id' }, audit: 'telemetry' },
  },
});
