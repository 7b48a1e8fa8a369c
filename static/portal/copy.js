// A button with data-copy="text" copies the text to the clipboard and says so. The Clipboard API
// needs a secure context (https, or this machine's loopback); elsewhere the text is selected and
// copied the older way. Served from static: nothing is loaded from the network.
"use strict";
(function () {
  function selectAndCopy(text) {
    const field = document.createElement("textarea");
    field.value = text;
    field.setAttribute("readonly", "");
    field.style.position = "fixed";
    field.style.opacity = "0";
    document.body.appendChild(field);
    field.select();
    let done = false;
    try {
      done = document.execCommand("copy");
    } catch (error) {
      done = false;
    }
    field.remove();
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () {
        return selectAndCopy(text);
      });
    }
    return selectAndCopy(text);
  }

  document.addEventListener("click", function (event) {
    const button = event.target.closest("button[data-copy]");
    if (!button) {
      return;
    }
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    copy(button.dataset.copy).then(
      function () {
        button.textContent = "Copied";
        button.classList.add("copied");
      },
      function () {
        button.textContent = "Select and copy";
      }
    );
    window.setTimeout(function () {
      button.textContent = label;
      button.classList.remove("copied");
    }, 2000);
  });
})();
