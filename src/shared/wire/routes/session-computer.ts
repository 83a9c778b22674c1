/** Routes of a session's computer control (mouse, keyboard, clipboard, screenshot). */
import { defineRoutes, sessionCall } from './route-spec.js';
import { SessionIdParamSchema } from '../session-id.js';
import {
  BatchSchema,
  ClickMouseSchema,
  ClipboardTextSchema,
  ClipboardWriteSchema,
  DragMouseSchema,
  MousePositionSchema,
  MoveMouseSchema,
  OkSchema,
  PressKeySchema,
  ScreenshotSchema,
  ScrollSchema,
  SetCursorSchema,
  TypeTextSchema,
} from '../session-computer.js';

export const sessionComputerRoutes = defineRoutes({
  'POST /browsers/:id/computer/click_mouse': {
    schema: { summary: 'Click the mouse', tags: ['browser computer'], params: SessionIdParamSchema, body: ClickMouseSchema },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/move_mouse': {
    schema: { summary: 'Move the mouse', tags: ['browser computer'], params: SessionIdParamSchema, body: MoveMouseSchema },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/drag_mouse': {
    schema: { summary: 'Drag the mouse along a path', tags: ['browser computer'], params: SessionIdParamSchema, body: DragMouseSchema },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/type': {
    schema: { summary: 'Type text', tags: ['browser computer'], params: SessionIdParamSchema, body: TypeTextSchema },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/press_key': {
    schema: { summary: 'Press keys', tags: ['browser computer'], params: SessionIdParamSchema, body: PressKeySchema },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/scroll': {
    schema: { summary: 'Scroll the mouse wheel', tags: ['browser computer'], params: SessionIdParamSchema, body: ScrollSchema },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/batch': {
    schema: { summary: 'Run a batch of computer actions', tags: ['browser computer'], params: SessionIdParamSchema, body: BatchSchema },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/clipboard/write': {
    schema: { summary: "Write the session's clipboard", tags: ['browser computer'], params: SessionIdParamSchema, body: ClipboardWriteSchema },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/clipboard/read': {
    schema: { summary: "Read the session's clipboard", tags: ['browser computer'], params: SessionIdParamSchema, response: { 200: ClipboardTextSchema } },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/get_mouse_position': {
    schema: { summary: 'Get the mouse position', tags: ['browser computer'], params: SessionIdParamSchema, response: { 200: MousePositionSchema } },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/cursor': {
    schema: {
      summary: 'Show or hide the mouse cursor',
      tags: ['browser computer'],
      params: SessionIdParamSchema,
      body: SetCursorSchema,
      response: { 200: OkSchema },
    },
    facts: sessionCall('control'),
  },
  'POST /browsers/:id/computer/screenshot': {
    schema: { summary: 'Capture a screenshot', tags: ['browser computer'], params: SessionIdParamSchema, body: ScreenshotSchema },
    facts: sessionCall('control'),
  },
});
