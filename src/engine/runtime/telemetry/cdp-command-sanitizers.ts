/**
 * What a `cdp_command` event keeps of each of the 38 browser-control methods (Kernel's
 * `BrowserCdp…CommandData` variants): coordinates, buttons, enums, counts and ids pass; typed
 * text, URLs, referrers, scripts, templates, file paths, drag contents and autofill values are
 * replaced by a length, a count, a presence flag or a URL scheme. A method's sanitizer reads only
 * the arguments it names, so anything else a client puts in `params` never reaches an event.
 */
import type { CdpCommandMethod } from '../../../shared/wire/telemetry-categories.js';
import { mimeCategories, namedKey, type CommandArgs } from './cdp-command-args.js';

type Fields = Record<string, unknown>;
type Sanitizer = (a: CommandArgs) => Fields;

const MOUSE_TYPES = ['mousePressed', 'mouseReleased', 'mouseMoved', 'mouseWheel'] as const;
const BUTTONS = ['none', 'left', 'middle', 'right', 'back', 'forward'] as const;
const GESTURE_SOURCES = ['default', 'touch', 'mouse'] as const;
const WINDOW_STATES = ['normal', 'minimized', 'maximized', 'fullscreen'] as const;
const TRANSITIONS = [
  'link',
  'typed',
  'address_bar',
  'auto_bookmark',
  'auto_subframe',
  'manual_subframe',
  'generated',
  'auto_toplevel',
  'form_submit',
  'reload',
  'keyword',
  'keyword_generated',
] as const;
const REFERRER_POLICIES = [
  'noReferrer',
  'noReferrerWhenDowngrade',
  'origin',
  'originWhenCrossOrigin',
  'sameOrigin',
  'strictOrigin',
  'strictOriginWhenCrossOrigin',
  'unsafeUrl',
] as const;

const none: Sanitizer = () => ({});
const node: Sanitizer = (a) => ({ node_id: a.num('nodeId'), backend_node_id: a.num('backendNodeId'), object_id: a.id('objectId') });
const target: Sanitizer = (a) => ({ target_id: a.id('targetId') });
const xy = (a: CommandArgs): Fields => ({ x: a.num('x'), y: a.num('y') });
const pen = (a: CommandArgs): Fields => ({
  force: a.num('force'),
  tangential_pressure: a.num('tangentialPressure'),
  tilt_x: a.num('tiltX'),
  tilt_y: a.num('tiltY'),
  twist: a.num('twist'),
});

/** What `dispatchMouseEvent` and `emulateTouchFromMouseEvent` share. */
const mouse = (a: CommandArgs): Fields => ({
  event_type: a.oneOf('type', MOUSE_TYPES),
  ...xy(a),
  button: a.oneOf('button', BUTTONS),
  click_count: a.num('clickCount'),
  delta_x: a.num('deltaX'),
  delta_y: a.num('deltaY'),
  modifiers: a.num('modifiers'),
});

export const SANITIZERS: Record<CdpCommandMethod, Sanitizer> = {
  'Input.dispatchMouseEvent': (a) => ({
    ...mouse(a),
    buttons: a.num('buttons'),
    pointer_type: a.oneOf('pointerType', ['mouse', 'pen'] as const),
    ...pen(a),
  }),
  'Input.dispatchKeyEvent': (a) => {
    return {
      event_type: a.oneOf('type', ['keyDown', 'keyUp', 'rawKeyDown', 'char'] as const),
      // A key that types a character is never named: only the length of the text it inserts.
      named_key: namedKey(a.id('key')),
      text_length: a.length('text'),
      modifiers: a.num('modifiers'),
      auto_repeat: a.bool('autoRepeat'),
      is_keypad: a.bool('isKeypad'),
      is_system_key: a.bool('isSystemKey'),
      location: a.num('location'),
      command_count: a.count('commands'),
    };
  },
  'Input.insertText': (a) => ({ text_length: a.length('text') }),
  'Input.imeSetComposition': (a) => ({
    text_length: a.length('text'),
    selection_start: a.num('selectionStart'),
    selection_end: a.num('selectionEnd'),
    replacement_start: a.num('replacementStart'),
    replacement_end: a.num('replacementEnd'),
  }),
  'Input.dispatchTouchEvent': (a) => {
    const first = a.objects('touchPoints')[0];
    return {
      event_type: a.oneOf('type', ['touchStart', 'touchEnd', 'touchMove', 'touchCancel'] as const),
      touch_point_count: a.count('touchPoints'),
      ...(first
        ? { ...xy(first), radius_x: first.num('radiusX'), radius_y: first.num('radiusY'), rotation_angle: first.num('rotationAngle'), ...pen(first) }
        : {}),
      modifiers: a.num('modifiers'),
    };
  },
  'Input.dispatchDragEvent': (a) => {
    const data = a.object('data');
    return {
      event_type: a.oneOf('type', ['dragEnter', 'dragOver', 'drop', 'dragCancel'] as const),
      ...xy(a),
      modifiers: a.num('modifiers'),
      drag_item_count: data?.count('items'),
      drag_file_count: data?.count('files'),
      drag_mime_categories: data ? mimeCategories(data.objects('items')) : undefined,
      drag_operations_mask: data?.num('dragOperationsMask'),
    };
  },
  'Input.cancelDragging': none,
  'Input.emulateTouchFromMouseEvent': mouse,
  'Input.synthesizePinchGesture': (a) => ({
    ...xy(a),
    scale_factor: a.num('scaleFactor'),
    relative_speed: a.num('relativeSpeed'),
    gesture_source_type: a.oneOf('gestureSourceType', GESTURE_SOURCES),
  }),
  'Input.synthesizeScrollGesture': (a) => ({
    ...xy(a),
    x_distance: a.num('xDistance'),
    y_distance: a.num('yDistance'),
    x_overscroll: a.num('xOverscroll'),
    y_overscroll: a.num('yOverscroll'),
    prevent_fling: a.bool('preventFling'),
    speed: a.num('speed'),
    gesture_source_type: a.oneOf('gestureSourceType', GESTURE_SOURCES),
    repeat_count: a.num('repeatCount'),
    repeat_delay_ms: a.num('repeatDelayMs'),
  }),
  'Input.synthesizeTapGesture': (a) => ({
    ...xy(a),
    duration: a.num('duration'),
    tap_count: a.num('tapCount'),
    gesture_source_type: a.oneOf('gestureSourceType', GESTURE_SOURCES),
  }),
  'DOM.setFileInputFiles': (a) => ({ file_count: a.count('files'), ...node(a) }),
  'DOM.focus': node,
  'DOM.scrollIntoViewIfNeeded': (a) => {
    const rect = a.object('rect');
    return { ...node(a), rect_x: rect?.num('x'), rect_y: rect?.num('y'), rect_width: rect?.num('width'), rect_height: rect?.num('height') };
  },
  'Page.bringToFront': none,
  'Page.captureScreenshot': (a) => {
    const clip = a.object('clip');
    return {
      format: a.oneOf('format', ['jpeg', 'png', 'webp'] as const),
      quality: a.num('quality'),
      clip_x: clip?.num('x'),
      clip_y: clip?.num('y'),
      clip_width: clip?.num('width'),
      clip_height: clip?.num('height'),
      clip_scale: clip?.num('scale'),
      from_surface: a.bool('fromSurface'),
      capture_beyond_viewport: a.bool('captureBeyondViewport'),
      optimize_for_speed: a.bool('optimizeForSpeed'),
    };
  },
  'Page.captureSnapshot': (a) => ({ format: a.oneOf('format', ['mhtml'] as const) }),
  'Page.handleJavaScriptDialog': (a) => ({ accept: a.bool('accept'), prompt_text_length: a.length('promptText') }),
  'Page.navigate': (a) => ({
    url_scheme: a.urlScheme('url'),
    referrer_present: a.present('referrer'),
    transition_type: a.oneOf('transitionType', TRANSITIONS),
    frame_id: a.id('frameId'),
    referrer_policy: a.oneOf('referrerPolicy', REFERRER_POLICIES),
  }),
  'Page.navigateToHistoryEntry': (a) => ({ entry_id: a.num('entryId') }),
  'Page.reload': (a) => ({ ignore_cache: a.bool('ignoreCache'), loader_id: a.id('loaderId'), script_length: a.length('scriptToEvaluateOnLoad') }),
  'Page.printToPDF': (a) => ({
    landscape: a.bool('landscape'),
    display_header_footer: a.bool('displayHeaderFooter'),
    print_background: a.bool('printBackground'),
    scale: a.num('scale'),
    paper_width: a.num('paperWidth'),
    paper_height: a.num('paperHeight'),
    margin_top: a.num('marginTop'),
    margin_bottom: a.num('marginBottom'),
    margin_left: a.num('marginLeft'),
    margin_right: a.num('marginRight'),
    page_ranges_present: a.present('pageRanges'),
    header_template_present: a.present('headerTemplate'),
    footer_template_present: a.present('footerTemplate'),
    prefer_css_page_size: a.bool('preferCSSPageSize'),
    transfer_mode: a.oneOf('transferMode', ['ReturnAsBase64', 'ReturnAsStream'] as const),
    generate_tagged_pdf: a.bool('generateTaggedPDF'),
    generate_document_outline: a.bool('generateDocumentOutline'),
  }),
  'Page.startScreencast': (a) => ({
    format: a.oneOf('format', ['jpeg', 'png'] as const),
    quality: a.num('quality'),
    max_width: a.num('maxWidth'),
    max_height: a.num('maxHeight'),
    every_nth_frame: a.num('everyNthFrame'),
  }),
  'Page.stopScreencast': none,
  'Page.stopLoading': none,
  'Page.close': none,
  'Page.setWebLifecycleState': (a) => ({ state: a.oneOf('state', ['frozen', 'active'] as const) }),
  'Target.activateTarget': target,
  'Target.closeTarget': target,
  'Target.createTarget': (a) => ({
    url_scheme: a.urlScheme('url'),
    left: a.num('left'),
    top: a.num('top'),
    width: a.num('width'),
    height: a.num('height'),
    window_state: a.oneOf('windowState', WINDOW_STATES),
    browser_context_id: a.id('browserContextId'),
    enable_begin_frame_control: a.bool('enableBeginFrameControl'),
    new_window: a.bool('newWindow'),
    background: a.bool('background'),
    for_tab: a.bool('forTab'),
    hidden: a.bool('hidden'),
    focus: a.bool('focus'),
  }),
  'Target.createBrowserContext': (a) => ({
    dispose_on_detach: a.bool('disposeOnDetach'),
    proxy_server_present: a.present('proxyServer'),
    proxy_bypass_list_present: a.present('proxyBypassList'),
    universal_network_access_origin_count: a.count('originsWithUniversalNetworkAccess'),
  }),
  'Target.disposeBrowserContext': (a) => ({ browser_context_id: a.id('browserContextId') }),
  'Target.openDevTools': (a) => ({ target_id: a.id('targetId'), panel_id: a.id('panelId') }),
  'Browser.cancelDownload': (a) => ({ download_guid: a.id('guid'), browser_context_id: a.id('browserContextId') }),
  'Browser.close': none,
  'Browser.setWindowBounds': (a) => {
    const b = a.object('bounds');
    return {
      window_id: a.num('windowId'),
      left: b?.num('left'),
      top: b?.num('top'),
      width: b?.num('width'),
      height: b?.num('height'),
      window_state: b?.oneOf('windowState', WINDOW_STATES),
    };
  },
  'Browser.setContentsSize': (a) => ({ window_id: a.num('windowId'), width: a.num('width'), height: a.num('height') }),
  'Autofill.trigger': (a) => {
    const address = a.object('address');
    return {
      field_id: a.num('fieldId'),
      frame_id: a.id('frameId'),
      mode: a.has('card') ? 'card' : address ? 'address' : undefined,
      address_field_count: address?.count('fields'),
    };
  },
};
