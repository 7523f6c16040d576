import { type Filters, api, exportUrl } from '../api-client/client.js';

/** Download the search as JSON Lines, or have it e-mailed (when the server can send mail). */
export function ExportMenu({ filters, disabled, email }: { filters: Filters; disabled: boolean; email: boolean }) {
  return (
    <details className="menu">
      <summary>Export</summary>
      <div className="menu-body">
        {disabled ? (
          <span className="muted">Fix the search to export it.</span>
        ) : (
          <a href={exportUrl(filters)} download="logstead-export.jsonl">
            Download JSON Lines
          </a>
        )}
        {!email ? (
          <span className="muted">E-mail export needs an SMTP server (LOGSTEAD_SMTP_URL).</span>
        ) : (
          <button
            type="button"
            onClick={async () => {
              const address = window.prompt('Send the export to which e-mail address?');
              if (!address) return;
              try {
                await api.emailExport(filters, address);
                window.alert(`The export will be e-mailed to ${address}.`);
              } catch (error) {
                window.alert((error as Error).message);
              }
            }}
          >
            Send by e-mail…
          </button>
        )}
      </div>
    </details>
  );
}
