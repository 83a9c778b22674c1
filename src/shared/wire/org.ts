/**
 * Wire schemas of organization resources (TypeBox: JSON Schema + static types). The engine
 * validates and documents with them; the renderer uses the static types only.
 */
import { Type, type Static } from '@sinclair/typebox';

export const ProjectSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
);
export type Project = Static<typeof ProjectSchema>;

export const ErrorSchema = Type.Object({
  code: Type.String(),
  message: Type.String(),
  details: Type.Optional(Type.Array(Type.Object({ code: Type.String(), message: Type.String() }))),
  inner_error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});
export type ApiErrorBody = Static<typeof ErrorSchema>;
