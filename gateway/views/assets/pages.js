// The settings pages work without JavaScript; this only adds the copy button beside a new key,
// which stays hidden where it cannot work. Served by the gateway itself (script-src 'self').
'use strict';
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('button[data-copy-from]').forEach(function (button) {
    var input = document.getElementById(button.getAttribute('data-copy-from'));
    var status = document.getElementById('copy-status');
    if (!input || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(input.value).then(
        function () {
          if (status) status.textContent = 'Copied to the clipboard.';
        },
        function () {
          input.focus();
          input.select();
          if (status) status.textContent = 'Could not copy: the key is selected, copy it with your keyboard.';
        },
      );
    });
  });
});
