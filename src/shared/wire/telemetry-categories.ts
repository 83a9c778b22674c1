/**
 * Telemetry categories of a session (`telemetry.browser` on create, PATCH, pools and in
 * responses; Kernel spec §6.1): ten switches, `control` with the `cdp_command` settings, and the
 * 38 browser-control CDP methods (`BrowserCdpCommandMethod`) the CDP proxy reports and
 * `control.cdp.excluded_methods` may name.
 */
import { Type, type TOptional, type TSchema } from '@sinclair/typebox';

export const TELEMETRY_CATEGORIES = [
  'console',
  'network',
  'page',
  'interaction',
  'control',
  'platform',
  'connection',
  'system',
  'screenshot',
  'captcha',
] as const;
export type TelemetryCategoryName = (typeof TELEMETRY_CATEGORIES)[number];
/** Operational signals are opt-out; the CDP categories, screenshots and `platform` are opt-in. */
export const DEFAULT_ON_CATEGORIES: readonly TelemetryCategoryName[] = ['control', 'connection', 'system', 'captcha'];

export const CDP_COMMAND_METHODS = [
  'Input.dispatchMouseEvent',
  'Input.dispatchKeyEvent',
  'Input.insertText',
  'Input.imeSetComposition',
  'Input.dispatchTouchEvent',
  'Input.dispatchDragEvent',
  'Input.cancelDragging',
  'Input.emulateTouchFromMouseEvent',
  'Input.synthesizePinchGesture',
  'Input.synthesizeScrollGesture',
  'Input.synthesizeTapGesture',
  'DOM.setFileInputFiles',
  'DOM.focus',
  'DOM.scrollIntoViewIfNeeded',
  'Page.bringToFront',
  'Page.captureScreenshot',
  'Page.captureSnapshot',
  'Page.handleJavaScriptDialog',
  'Page.navigate',
  'Page.navigateToHistoryEntry',
  'Page.reload',
  'Page.printToPDF',
  'Page.startScreencast',
  'Page.stopScreencast',
  'Page.stopLoading',
  'Page.close',
  'Page.setWebLifecycleState',
  'Target.activateTarget',
  'Target.closeTarget',
  'Target.createTarget',
  'Target.createBrowserContext',
  'Target.disposeBrowserContext',
  'Target.openDevTools',
  'Browser.cancelDownload',
  'Browser.close',
  'Browser.setWindowBounds',
  'Browser.setContentsSize',
  'Autofill.trigger',
] as const;
export type CdpCommandMethod = (typeof CDP_COMMAND_METHODS)[number];

const Category = Type.Object({ enabled: Type.Optional(Type.Boolean()) });
const CdpMethod = Type.Union(
  CDP_COMMAND_METHODS.map((m) => Type.Literal(m)),
  { description: 'A browser-control CDP method (BrowserCdpCommandMethod)' },
);
/** `excluded_methods` omitted keeps the current list; `[]` reports every method again. */
const CdpControlRequest = Type.Object(
  { excluded_methods: Type.Optional(Type.Array(CdpMethod, { maxItems: CDP_COMMAND_METHODS.length })) },
  { additionalProperties: false },
);
const ControlRequest = Type.Object({ enabled: Type.Optional(Type.Boolean()), cdp: Type.Optional(CdpControlRequest) }, { additionalProperties: false });
/** `bodies` (engine option, not Kernel's): keep response bodies for `GET /browsers/{id}/har?bodies=true`; omitted keeps the current choice. */
const NetworkRequest = Type.Object({ enabled: Type.Optional(Type.Boolean()), bodies: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

/**
 * One property per category: `control` and `network` with their own schema, the rest with
 * `plain`. Typed by category so `Static<>` keeps `control.cdp` and `network.bodies`.
 */
function categoryProperties<P extends TSchema, C extends TSchema, N extends TSchema>(plain: P, control: C, network: N) {
  const of = (c: TelemetryCategoryName): TSchema => (c === 'control' ? control : c === 'network' ? network : plain);
  return Object.fromEntries(TELEMETRY_CATEGORIES.map((c) => [c, Type.Optional(of(c))])) as {
    [K in Exclude<TelemetryCategoryName, 'control' | 'network'>]: TOptional<P>;
  } & { control: TOptional<C>; network: TOptional<N> };
}

/** Request `telemetry.browser`: every category optional; unknown ones are dropped (forward compatibility). */
export const TelemetryBrowserRequestSchema = Type.Object(categoryProperties(Category, ControlRequest, NetworkRequest), { additionalProperties: false });

const CategoryState = Type.Object({ enabled: Type.Boolean() });
/** Response `telemetry.browser`: every category with its state; `control` carries its exclusion list. */
export const TelemetryBrowserConfigSchema = Type.Object(
  categoryProperties(
    CategoryState,
    Type.Object({ enabled: Type.Boolean(), cdp: Type.Optional(Type.Object({ excluded_methods: Type.Array(Type.String()) })) }),
    Type.Object({ enabled: Type.Boolean(), bodies: Type.Optional(Type.Boolean()) }),
  ),
);
