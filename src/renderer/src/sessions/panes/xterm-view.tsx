/**
 * An xterm.js terminal filling its box (FitAddon, refitted on resize). Used read-only by the
 * Logs console and interactive by the process terminal: the parent gets the `Terminal` through
 * `onReady` and wires its own data source; `onResize` reports cols/rows after each fit.
 */
import { useEffect, useRef } from 'react';
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import '@xterm/xterm/css/xterm.css';

export interface XtermViewProps {
  readOnly?: boolean;
  /**
   * LF moves to the start of the line too (default: when read-only). A process without a PTY
   * writes bare LF — no tty turns it into CRLF — which xterm would draw as a staircase.
   */
  convertEol?: boolean;
  onReady(term: Terminal): void | (() => void);
  onResize?(cols: number, rows: number): void;
  label: string;
  className?: string;
}

export function XtermView({ readOnly, convertEol, onReady, onResize, label, className }: XtermViewProps): React.JSX.Element {
  const box = useRef<HTMLDivElement>(null);
  // Latest callbacks without re-creating the terminal.
  const cb = useRef({ onReady, onResize });
  cb.current = { onReady, onResize };

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const term = new Terminal({
      convertEol: convertEol ?? !!readOnly,
      disableStdin: readOnly,
      cursorBlink: !readOnly,
      scrollback: 5000,
      fontFamily: "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace",
      fontSize: 13,
      theme: { background: '#10151e', foreground: '#d6dde8', cursor: readOnly ? '#10151e' : '#d6dde8' },
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(el);
    const refit = (): void => {
      try {
        fit.fit();
      } catch {
        // Not laid out yet (hidden tab): the next resize fits it.
      }
    };
    refit();
    const sub = term.onResize(({ cols, rows }) => cb.current.onResize?.(cols, rows));
    const ro = new ResizeObserver(refit);
    ro.observe(el);
    const dispose = cb.current.onReady(term);
    return () => {
      ro.disconnect();
      sub.dispose();
      if (typeof dispose === 'function') dispose();
      term.dispose();
    };
  }, [readOnly, convertEol]);

  return <div ref={box} className={`xterm-box ${className ?? ''}`} role="log" aria-label={label} />;
}
