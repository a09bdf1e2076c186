// Sort a table by a column when its header is clicked; without JavaScript the table stays as written.
for (const table of document.querySelectorAll("table.sortable")) {
  const heads = Array.from(table.tHead.rows[0].cells);
  heads.forEach((th, column) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = th.textContent;
    th.textContent = "";
    th.appendChild(button);
    button.addEventListener("click", () => {
      const descending = th.getAttribute("aria-sort") !== "descending";
      heads.forEach((h) => h.removeAttribute("aria-sort"));
      th.setAttribute("aria-sort", descending ? "descending" : "ascending");
      const numeric = th.dataset.type === "number";
      const key = (row) => {
        const cell = row.cells[column];
        if (!numeric) return cell.textContent.toLowerCase();
        return cell.dataset.v === undefined || cell.dataset.v === "" ? -Infinity : Number(cell.dataset.v);
      };
      const body = table.tBodies[0];
      const rows = Array.from(body.rows).map((row) => [key(row), row]);
      rows.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0) * (descending ? -1 : 1));
      body.append(...rows.map((pair) => pair[1]));
    });
  });
}
