import type { AnchorHTMLAttributes, ReactNode } from 'react';
import { opensElsewhere } from './routes.js';
import { navigate } from './useRoute.js';

/**
 * A link to a page of the viewer: a real link (it opens in a new tab, and can be copied), which
 * a plain click follows without loading the page again.
 */
export function Link({ to, children, ...rest }: { to: string; children: ReactNode } & Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'>) {
  return (
    <a
      {...rest}
      href={to}
      onClick={(event) => {
        rest.onClick?.(event);
        if (event.defaultPrevented || opensElsewhere(event)) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
