// What run.py measures in the page for every visible output of the notebook in view
// (JupyterLab or Notebook 7): a list of "code cell N (its last source line): what is
// wrong", empty when everything fits. Called with [minShown]: the fewest characters a
// one-line table cell that cuts its text must still show (all of them when it has fewer).
([minShown]) => {
  const panel = window.jupyterapp.shell.currentWidget;
  const problems = [];
  const charWidth = (el) => {
    const probe = document.createElement('span');
    probe.textContent = 'x'.repeat(100);
    probe.style.whiteSpace = 'pre';
    el.appendChild(probe);
    const width = probe.getBoundingClientRect().width / 100;
    probe.remove();
    return width;
  };
  const inner = (el) => {
    const style = getComputedStyle(el);
    return el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  };
  // folded content (<details>) is measured open, as a reader who opens it sees it
  const folded = [...panel.node.querySelectorAll('.jp-OutputArea-output details:not([open])')];
  folded.forEach(d => { d.open = true; });
  const cells = [...panel.content.widgets].filter(c => c.model.type === 'code');
  cells.forEach((cell, k) => {
    const source = cell.model.sharedModel.getSource().trim().split('\n').pop().slice(0, 50);
    const where = `code cell ${k + 1} (${source})`;
    for (const out of cell.node.querySelectorAll('.jp-OutputArea-output')) {
      if (out.offsetParent === null || out.clientWidth === 0) continue;
      const area = out.getBoundingClientRect();
      if (out.scrollWidth > out.clientWidth + 1)
        problems.push(`${where}: the output scrolls sideways (${out.scrollWidth} > ${out.clientWidth} px)`);
      for (const table of out.querySelectorAll('table')) {
        const box = table.parentElement;
        if (table.offsetWidth > box.clientWidth + 1 || table.getBoundingClientRect().right > area.right + 1)
          problems.push(`${where}: a table is wider than its area (${table.offsetWidth} > ${box.clientWidth} px)`);
        const oneLine = table.classList.contains('one-line');
        for (const row of table.rows) {
          for (const c of row.cells) {
            const text = c.textContent.trim().slice(0, 30);
            const rect = c.getBoundingClientRect();
            const cut = c.scrollWidth > c.clientWidth + 1;
            if (cut && !(oneLine && c.tagName === 'TD'))
              problems.push(`${where}: ${c.tagName.toLowerCase()} "${text}" spills out of its column (${c.scrollWidth} > ${c.clientWidth} px)`);
            if (cut && oneLine && c.tagName === 'TD') {
              const shown = Math.floor(inner(c) / charWidth(c));
              if (shown < Math.min(minShown, [...c.textContent.trim()].length))
                problems.push(`${where}: td "${text}" shows only ${shown} characters`);
            }
            for (const badge of c.querySelectorAll('.fate')) {
              const b = badge.getBoundingClientRect();
              if (b.right > rect.right + 1 || b.left < rect.left - 1 || badge.scrollWidth > badge.clientWidth + 1)
                problems.push(`${where}: the badge "${badge.textContent}" is clipped`);
            }
          }
        }
      }
      for (const img of out.querySelectorAll('img')) {
        if (!(img.getAttribute('alt') || '').trim())
          problems.push(`${where}: an image has no alternative text`);
        const r = img.getBoundingClientRect();
        if (r.right > area.right + 1 || r.width < 2)
          problems.push(`${where}: an image is cut off (${Math.round(r.width)} px, ends at ${Math.round(r.right)} > ${Math.round(area.right)})`);
      }
      for (const pre of out.querySelectorAll('pre')) {
        if (pre.closest('table')) continue;
        const lines = pre.textContent.split('\n');
        const longest = lines.reduce((a, l) => ([...l].length > [...a].length ? l : a), '');
        const columns = Math.floor(inner(pre) / charWidth(pre) + 0.01);
        if ([...longest].length > columns)
          problems.push(`${where}: a text line of ${[...longest].length} characters, the area shows ${columns}: "${longest.slice(0, 40)}"`);
      }
    }
  });
  folded.forEach(d => { d.open = false; });
  return problems;
}
