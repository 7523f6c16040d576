import type { ReactNode } from 'react';

/**
 * The frame every settings page shares: a landmark named by its title, the title as its heading
 * with the page's own buttons beside it, then the page. `name` gives the body its class and test id
 * (`<name>-page`), by which the pages are styled and the browser tests find them.
 */
export function SettingsFrame({ title, name, actions, children }: { title: string; name: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="settings-page" aria-label={title}>
      <div className={`settings-body ${name}-page`} data-testid={`${name}-page`}>
        <header className="settings-header">
          <h2>{title}</h2>
          {actions}
        </header>
        {children}
      </div>
    </section>
  );
}
