/** Routes of the audit log: search, cursor export and export destinations. */
import { defineRoutes } from './route-spec.js';
import { AuditExportChunkSchema, AuditExportQuerySchema, AuditLogListSchema, AuditSearchQuerySchema } from '../audit.js';
import {
  AuditDestinationCreateSchema,
  AuditDestinationIdParamSchema,
  AuditDestinationListQuerySchema,
  AuditDestinationListSchema,
  AuditDestinationPatchSchema,
  AuditDestinationSchema,
  AuditDestinationTestResultSchema,
} from '../audit-destinations.js';

export const auditRoutes = defineRoutes({
  'GET /audit-logs': {
    schema: { summary: 'Search the audit log', tags: ['audit-logs'], querystring: AuditSearchQuerySchema, response: { 200: AuditLogListSchema } },
    facts: { audit: 'audit-logs' },
  },
  'GET /audit-logs/export/chunk': {
    schema: {
      summary: 'Read a chunk of the audit log export',
      tags: ['audit-logs'],
      querystring: AuditExportQuerySchema,
      response: { 200: AuditExportChunkSchema },
    },
    facts: { audit: 'audit-logs' },
  },
  'POST /audit-logs/export/destinations': {
    schema: {
      summary: 'Create an audit log export destination',
      tags: ['audit-logs'],
      body: AuditDestinationCreateSchema,
      response: { 200: AuditDestinationSchema },
    },
    facts: { audit: 'audit-logs' },
  },
  'GET /audit-logs/export/destinations': {
    schema: {
      summary: 'List audit log export destinations',
      tags: ['audit-logs'],
      querystring: AuditDestinationListQuerySchema,
      response: { 200: AuditDestinationListSchema },
    },
    facts: { audit: 'audit-logs' },
  },
  'GET /audit-logs/export/destinations/:id': {
    schema: {
      summary: 'Get an audit log export destination',
      tags: ['audit-logs'],
      params: AuditDestinationIdParamSchema,
      response: { 200: AuditDestinationSchema },
    },
    facts: { reach: { table: 'audit_export_destinations', param: 'id' }, audit: 'audit-logs' },
  },
  'PATCH /audit-logs/export/destinations/:id': {
    schema: {
      summary: 'Update an audit log export destination',
      tags: ['audit-logs'],
      params: AuditDestinationIdParamSchema,
      body: AuditDestinationPatchSchema,
      response: { 200: AuditDestinationSchema },
    },
    facts: { reach: { table: 'audit_export_destinations', param: 'id' }, audit: 'audit-logs' },
  },
  'DELETE /audit-logs/export/destinations/:id': {
    schema: { summary: 'Delete an audit log export destination', tags: ['audit-logs'], params: AuditDestinationIdParamSchema },
    facts: { reach: { table: 'audit_export_destinations', param: 'id' }, audit: 'audit-logs' },
  },
  'POST /audit-logs/export/destinations/:id/test': {
    schema: {
      summary: 'Test an audit log export destination',
      tags: ['audit-logs'],
      params: AuditDestinationIdParamSchema,
      response: { 200: AuditDestinationTestResultSchema },
    },
    facts: { reach: { table: 'audit_export_destinations', param: 'id' }, audit: 'audit-logs' },
  },
});
