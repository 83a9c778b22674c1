/**
 * `control.cdp.excluded_methods` (Kernel §6.1): which of the 38 browser-control CDP methods the
 * session does not report as `cdp_command` events (the commands still reach Chromium). A
 * checkbox per method, grouped by CDP domain; the telemetry settings save the set with PATCH.
 */
import { CDP_COMMAND_METHODS } from '../../../../shared/wire/telemetry-categories';

const DOMAINS = [...new Set(CDP_COMMAND_METHODS.map((m) => m.split('.')[0]))];

export function ExcludedCdpMethods({ excluded, onChange }: { excluded: ReadonlySet<string>; onChange(next: Set<string>): void }): React.JSX.Element {
  return (
    <details className="excluded-methods">
      <summary>
        CDP commands not reported <span className="muted small">({excluded.size ? [...excluded].join(', ') : 'none: every method is reported'})</span>
      </summary>
      {DOMAINS.map((domain) => (
        <fieldset key={domain} className="check-row">
          <legend className="muted small">{domain}</legend>
          {CDP_COMMAND_METHODS.filter((m) => m.startsWith(`${domain}.`)).map((m) => (
            <label key={m} className="check-field">
              <input
                type="checkbox"
                aria-label={`Exclude ${m}`}
                checked={excluded.has(m)}
                onChange={(e) => {
                  const next = new Set(excluded);
                  if (e.target.checked) next.add(m);
                  else next.delete(m);
                  onChange(next);
                }}
              />
              {m.slice(domain.length + 1)}
            </label>
          ))}
        </fieldset>
      ))}
    </details>
  );
}
