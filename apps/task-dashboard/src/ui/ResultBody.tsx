/** A task's result, readable: files as a table, the week as day columns, a note as a note, anything else as JSON. */
import type { ResultView } from "../model/results.js";
import { useText } from "./text.js";

export function ResultBody({ view }: { view: ResultView }) {
  const text = useText();
  switch (view.kind) {
    case "files":
      return (
        <div class="td-result-files">
          <p>{view.summary}</p>
          <table>
            <caption class="td-sr-only">{text.filesSummedUp}</caption>
            <thead>
              <tr>
                <th scope="col">{text.file}</th>
                <th scope="col">{text.lines}</th>
                <th scope="col">{text.words}</th>
                <th scope="col">{text.beginsWith}</th>
              </tr>
            </thead>
            <tbody>
              {view.files.map((f, i) => (
                <tr key={i}>
                  <th scope="row">{f.name}</th>
                  <td>{f.lines}</td>
                  <td>{f.words}</td>
                  <td class="td-first-line">{f.first_line}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case "week":
      return (
        <div class="td-result-week">
          <ol class="td-days">
            {view.days.map((d) => (
              <li key={d.day} class="td-day">
                <h4>{text.day(d.day)}</h4>
                {d.items.length === 0 ? (
                  <p class="td-hint">{text.free}</p>
                ) : (
                  <ul>
                    {d.items.map((item, i) => (
                      <li key={i}>{item}</li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ol>
          {view.unscheduled.length > 0 && (
            <div class="td-unscheduled">
              <h4>{text.unscheduled}</h4>
              <ul>
                {view.unscheduled.map((item, i) => (
                  <li key={i}>{item}</li>
                ))}
              </ul>
            </div>
          )}
        </div>
      );
    case "note":
      return (
        <article class="td-result-note">
          <h4>{view.title}</h4>
          <p>{view.text}</p>
        </article>
      );
    case "json":
      return <pre class="td-result-json">{view.json}</pre>;
  }
}
