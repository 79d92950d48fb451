/** Toolbar icons: inline SVG (the sandbox loads nothing), drawn with `currentColor`. */
import type { JSX } from "preact";

const Svg = ({ children }: { children: JSX.Element | JSX.Element[] }) => (
  <svg viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">
    {children}
  </svg>
);

export const icons = {
  select: (
    <Svg>
      <path d="M5 3l14 8-6 1.5L10 19z" />
    </Svg>
  ),
  pen: (
    <Svg>
      <path d="M4 20c3-1 4-4 6-6l7-7a2 2 0 0 0-3-3l-7 7c-2 2-5 3-6 6z" />
    </Svg>
  ),
  rect: (
    <Svg>
      <rect x="4" y="6" width="16" height="12" rx="1" />
    </Svg>
  ),
  ellipse: (
    <Svg>
      <ellipse cx="12" cy="12" rx="8" ry="6" />
    </Svg>
  ),
  line: (
    <Svg>
      <path d="M5 19L19 5" />
    </Svg>
  ),
  arrow: (
    <Svg>
      <path d="M5 19L19 5M10 5h9v9" />
    </Svg>
  ),
  text: (
    <Svg>
      <path d="M5 6V4h14v2M12 4v16M9 20h6" />
    </Svg>
  ),
  eraser: (
    <Svg>
      <path d="M8 20h12M4 15l9-9 6 6-8 8H8z" />
    </Svg>
  ),
  undo: (
    <Svg>
      <path d="M9 14L4 9l5-5M4 9h10a6 6 0 0 1 0 12h-3" />
    </Svg>
  ),
  redo: (
    <Svg>
      <path d="M15 14l5-5-5-5M20 9H10a6 6 0 0 0 0 12h3" />
    </Svg>
  ),
  trash: (
    <Svg>
      <path d="M4 7h16M10 11v6M14 11v6M6 7l1 13h10l1-13M9 7V4h6v3" />
    </Svg>
  ),
};
