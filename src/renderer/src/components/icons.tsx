/**
 * The UI's icons as small inline SVGs: glyphs (emoji, geometric symbols) depend on the fonts
 * a system has and render as missing boxes in Debian's Chromium. Each draws in currentColor
 * at 1em, so it takes the size and colour of the text around it; all are decorative
 * (aria-hidden): the control that holds one carries the label.
 */
import type { SVGProps } from 'react';

type IconProps = Omit<SVGProps<SVGSVGElement>, 'children'>;

function Svg({ children, ...props }: IconProps & { children: React.ReactNode }): React.JSX.Element {
  return (
    <svg
      className="icon"
      width="1em"
      height="1em"
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.5}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...props}
    >
      {children}
    </svg>
  );
}

/** A directory in a file listing. */
export function FolderIcon(props: IconProps): React.JSX.Element {
  return (
    <Svg data-icon="folder" {...props}>
      <path d="M1.75 4.25c0-.55.45-1 1-1h3.5l1.5 1.5h5.5c.55 0 1 .45 1 1v6.5c0 .55-.45 1-1 1H2.75c-.55 0-1-.45-1-1z" fill="currentColor" fillOpacity={0.18} />
    </Svg>
  );
}

/** Close / dismiss (dialogs, toasts). */
export function CloseIcon(props: IconProps): React.JSX.Element {
  return (
    <Svg data-icon="close" {...props}>
      <path d="M4 4l8 8M12 4l-8 8" />
    </Svg>
  );
}

/** The Browserdeck mark: a browser window. */
export function LogoIcon(props: IconProps): React.JSX.Element {
  return (
    <Svg data-icon="logo" {...props}>
      <rect x="2" y="2.5" width="12" height="11" rx="1.5" />
      <path d="M2 5.5h12" />
    </Svg>
  );
}

/** A recording in progress. */
export function RecordIcon(props: IconProps): React.JSX.Element {
  return (
    <Svg data-icon="record" {...props}>
      <circle cx="8" cy="8" r="4.5" fill="currentColor" stroke="none" />
    </Svg>
  );
}
